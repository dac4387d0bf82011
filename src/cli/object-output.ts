import { InvalidArgumentError } from 'commander';
import { stringify } from 'yaml';
import { compileJsonPathTemplate } from './jsonpath-template.js';

/** How a command prints the object the server answered, as kubectl's `-o`. */
export type ObjectOutput = { format: 'yaml' | 'json' | 'name' } | { format: 'jsonpath'; render: (value: unknown) => string };

/**
 * `-o yaml|json|name|jsonpath=TEMPLATE` (kubectl's template syntax); a bad value or template is a
 * usage error naming it, before any request is sent.
 */
export function parseObjectOutput(value: string): ObjectOutput {
  if (value === 'yaml' || value === 'json' || value === 'name') return { format: value };
  if (value.startsWith('jsonpath=')) {
    try {
      return { format: 'jsonpath', render: compileJsonPathTemplate(value.slice('jsonpath='.length)) };
    } catch (error: unknown) {
      throw new InvalidArgumentError(`${value}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new InvalidArgumentError(`"${value}" is not an output format: use yaml, json, name or jsonpath=TEMPLATE`);
}

/** The text of `object` in `output`: `name` is kubectl's `<resource>.<group>/<name>`. */
export function formatObject(object: Record<string, unknown>, output: ObjectOutput, resource: string): string {
  switch (output.format) {
    case 'yaml':
      return stringify(object);
    case 'json':
      return `${JSON.stringify(object, null, 4)}\n`;
    case 'name': {
      const group = String(object['apiVersion'] ?? '').split('/').slice(0, -1).join('/');
      const name = String((object['metadata'] as { name?: unknown } | undefined)?.name ?? '');
      return `${resource}${group !== '' ? `.${group}` : ''}/${name}\n`;
    }
    case 'jsonpath':
      return output.render(object);
  }
}
