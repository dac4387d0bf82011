/** Virtual ↔ host translation: pure functions and the {@link Translator} built from the config. */
export * from './keys.js';
export * from './safe-concat-name.js';
export * from './host-names.js';
export * from './label-keys.js';
export * from './controlled-by.js';
export * from './label-selector.js';
export * from './object-metadata.js';
export * from './namespace-mapper.js';
export * from './translate-error.js';
export * from './translator.js';
