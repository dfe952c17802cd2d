/**
 * The config.json key that marks a model built by this package: a toy with hand-set weights, not a
 * trained model. Loaders and status pages check it so a toy is never mistaken for the real thing.
 */
export const TEST_MODEL_MARKER = '_tp_test_model';
