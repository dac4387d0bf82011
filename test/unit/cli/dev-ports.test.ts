import { describe, expect, it } from 'vitest';
import { formatDevPorts, parseDevPorts } from '../../../src/cli/dev-ports.js';

describe('the ports file of vcsync dev', () => {
  it('reads back what it writes, listeners in a fixed order', () => {
    const text = formatDevPorts({ metrics: 4000, management: 4001, virtual: 4002 });
    expect(text).toBe('{\n  "management": 4001,\n  "virtual": 4002,\n  "metrics": 4000\n}\n');
    expect(parseDevPorts(text, 'ports.json')).toEqual({ management: 4001, virtual: 4002, metrics: 4000 });
  });

  it.each([
    ['not JSON', '{', /ports\.json: not JSON/],
    ['an array', '[8443]', /ports\.json: expected an object of listener name to port/],
    ['an unknown listener', '{"managment": 8443}', /ports\.json: \.managment: unknown listener \(known: management, virtual, host, metrics\)/],
    ['a port out of range', '{"virtual": 70000}', /ports\.json: \.virtual: 70000 is not a port/],
    ['a port as text', '{"host": "8443"}', /ports\.json: \.host: "8443" is not a port/],
  ])('refuses %s, naming the field and the way out', (_, text, message) => {
    expect(() => parseDevPorts(text, 'ports.json')).toThrow(message);
    expect(() => parseDevPorts(text, 'ports.json')).toThrow(/delete the file to pick new ports/);
  });
});
