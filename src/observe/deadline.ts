/**
 * Deadlines that give up on an answer, decided after the event loop has read its sockets and pipes.
 *
 * Node runs due timers before it reads I/O: when this process was busy past a deadline (a burst of
 * work, a long garbage collection), an answer that arrived in time is still unread when a plain
 * timer fires, and the caller would give up on it. A deadline set here runs `expire` in the check
 * phase after that read (`setImmediate`), so what arrived is handled first. `expire` must check
 * that what it gives up on is still pending; clearing the returned timer stops it only until it
 * has fired.
 */
export function setDeadline(expire: () => void, delayMs: number): NodeJS.Timeout {
  return setTimeout(() => setImmediate(expire), Math.max(0, delayMs));
}
