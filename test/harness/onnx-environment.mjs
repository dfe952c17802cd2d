// Jest environment for every test (jest.config.js): the node environment, plus typed arrays shared
// with the outer realm so onnxruntime-node works inside tests.
// Why: jest runs each test file in its own realm, and its node environment shares only ArrayBuffer and
// Uint8Array with the outer one. onnxruntime-node's native binding returns outputs as outer-realm typed
// arrays, and onnxruntime-common's Tensor then rejects them ("A float32 tensor's data must be type of
// function Float32Array()"). Sharing the other typed-array constructors too makes both sides agree.
// Plain JavaScript: jest loads environments outside its TypeScript transform.
import nodeEnvironment from 'jest-environment-node';

const NodeEnvironment = nodeEnvironment.TestEnvironment ?? nodeEnvironment.default ?? nodeEnvironment;

const TYPED_ARRAYS = {
  Int8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
};

export default class OnnxEnvironment extends NodeEnvironment {
  constructor(config, context) {
    super(config, context);
    Object.assign(this.global, TYPED_ARRAYS);
  }
}
