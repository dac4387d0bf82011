/** vcluster.yaml: schema and types, parsing with located errors, defaults, reload. */
export * from './schema.js';
export * from './config-section.js';
export * from './config-schema.js';
export * from './config-error.js';
export * from './config-path.js';
export * from './config-source.js';
export * from './config-defaults.js';
export * from './parse-config.js';
export * from './check-config.js';
export * from './load-config-file.js';
export * from './watch-config-file.js';
export * from './json-schema.js';
export * from './namespace-mapping-rules.js';
export * from './host-nodes-rule.js';
