import type { JsonObject, StatusCause } from '../apimachinery/index.js';
import type { AuthenticatedUser } from './request-authentication.js';
import type { Subresource } from './subresource.js';

/**
 * What a strategy hook knows of a write besides the objects (k8s.io/apiserver passes the same in
 * the request context and picks a per-subresource strategy).
 */
export interface WriteContext {
  /** The subresource written (`status`, `approval`); undefined for the object itself. */
  readonly subresource?: Subresource | undefined;
  /** Who writes; undefined for the server's own writes (its controllers) and servers without authentication. */
  readonly user?: AuthenticatedUser | undefined;
}

/**
 * What a kind adds to the generic write rules of the registry store (`ObjectWriter`), like the
 * create/update/delete strategies of k8s.io/apiserver's registry. Every hook is optional; a kind
 * without any is stored with the generic metadata rules only. Hooks throw an `ApiError` to refuse.
 */
export interface KindStrategy {
  /**
   * Fills in the kind's defaults on `object` (create, update and patch), which the hook may
   * change in place; `old` is the stored object on update. On update of a subresource, `object`
   * is the stored object with the request's `status`: the hook keeps what that subresource may
   * not change. Returns the causes of an `Invalid` failure (e.g. an immutable field changed),
   * empty when none.
   */
  prepareForWrite?(object: JsonObject, old: JsonObject | undefined, context: WriteContext): StatusCause[];
  /**
   * Validates the kind's own fields after defaulting; `old` is the stored object on update (for
   * rules about changes, e.g. immutable fields). Returns the causes of an `Invalid` failure.
   */
  validate?(object: JsonObject, old: JsonObject | undefined, context: WriteContext): StatusCause[];
  /**
   * Takes what the write needs from shared pools (a Service's cluster IP and IP families), in
   * place, after validation and after field ownership is recorded: the real server's REST storage
   * allocates after the field manager ran, so nobody owns what it allocates. Returns the causes of
   * an `Invalid` failure (the pool is full, the address is taken).
   */
  allocate?(object: JsonObject, old: JsonObject | undefined): StatusCause[];
  /**
   * Holds what `object` takes from a shared pool (a Service's cluster IP) while its write is in
   * flight, so that a concurrent write cannot take it too. Returns the release, or undefined when
   * nothing is held. The release runs once the write settled, whether it succeeded or not.
   */
  reserve?(object: JsonObject): (() => void) | undefined;
  /**
   * Replaces the write-only fields of `object` (in place, after validation, on create and update)
   * by the form they are stored in, e.g. a credential by its keyed hash; `old` is the stored object
   * on update. Returns how the response of this one write shows the stored object (the clear value
   * the client must see once), or undefined to show it as stored.
   */
  seal?(object: JsonObject, old: JsonObject | undefined): ((stored: JsonObject) => JsonObject) | undefined;
  /**
   * The object as every response, list item and watch event shows it: hidden fields (the stored
   * form of write-only fields) removed. Returns a new object; default: as stored.
   */
  present?(object: JsonObject): JsonObject;
  /** Changes `object`, which finalizers keep, when it is marked for deletion (a Namespace's phase). */
  markForDeletion?(object: JsonObject): void;
  /**
   * Whether the kind's own finalizers (a Namespace's spec.finalizers) keep `object` when a delete
   * or the removal of its last metadata finalizer would remove it: it is marked for deletion
   * instead, and removed by the write that leaves it with no finalizer of either kind.
   */
  heldByKindFinalizers?(object: JsonObject): boolean;
}

/** What a {@link KindProcedure} is asked to answer: the checked request object and who sent it. */
export interface ProcedureRequest {
  /**
   * The request body after the checks every create makes (apiVersion and kind, the URL's
   * namespace, unknown fields pruned, the kind's validation), a fresh copy the procedure owns.
   */
  object: JsonObject;
  /** The caller; undefined on a server without authentication. */
  user: AuthenticatedUser | undefined;
  /** `dryRun=All`: answer without any side effect the caller could observe. */
  dryRun: boolean;
  /** For an action (`<plural>/<name>/<action>`): the object the URL addresses. */
  target?: { namespace: string; name: string };
}

/**
 * The create of a kind that is not stored, like the real server's TokenReview or
 * SubjectAccessReview: the core checks the body as for any create, then answers 201 with what the
 * procedure returns (the object with its status filled in). Throws an `ApiError` to refuse.
 */
export type KindProcedure = (request: ProcedureRequest) => Promise<JsonObject>;
