import onnxProto from 'onnx-proto';
import type { onnx } from 'onnx-proto';

// onnx-proto is CommonJS and exposes its classes only on the default export.
const { AttributeProto, ModelProto, TensorProto } = onnxProto.onnx;

export const FLOAT = TensorProto.DataType.FLOAT;
export const INT64 = TensorProto.DataType.INT64;
export const BOOL = TensorProto.DataType.BOOL;

/** A dimension: a fixed size or a symbolic name for a dynamic one (`batch_size`). */
export type Dim = number | string;

/** A float initializer, written little-endian as ONNX requires, whatever the host. */
export function floatTensor(name: string, dims: readonly number[], values: Float32Array): onnx.ITensorProto {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  values.forEach((value, i) => view.setFloat32(i * 4, value, true));
  return { name, dataType: FLOAT, dims: [...dims], rawData: bytes };
}

/** An int64 initializer; `dims` [] makes a scalar. */
export function int64Tensor(
  name: string,
  dims: readonly number[],
  values: readonly number[],
): onnx.ITensorProto {
  const bytes = new Uint8Array(values.length * 8);
  const view = new DataView(bytes.buffer);
  values.forEach((value, i) => view.setBigInt64(i * 8, BigInt(value), true));
  return { name, dataType: INT64, dims: [...dims], rawData: bytes };
}

type AttributeValue = number | readonly number[];

/** One node. Integer attributes only, which is all these graphs need (axis, perm, to). */
export function node(
  opType: string,
  inputs: readonly string[],
  outputs: readonly string[],
  attributes: Readonly<Record<string, AttributeValue>> = {},
): onnx.INodeProto {
  return {
    opType,
    name: outputs[0] ?? opType,
    input: [...inputs],
    output: [...outputs],
    attribute: Object.entries(attributes).map(([name, value]) =>
      typeof value === 'number'
        ? { name, type: AttributeProto.AttributeType.INT, i: value }
        : { name, type: AttributeProto.AttributeType.INTS, ints: [...value] },
    ),
  };
}

export function valueInfo(name: string, elemType: number, dims: readonly Dim[]): onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((dim) => (typeof dim === 'number' ? { dimValue: dim } : { dimParam: dim })) },
      },
    },
  };
}

export interface GraphParts {
  readonly name: string;
  readonly inputs: readonly onnx.IValueInfoProto[];
  readonly outputs: readonly onnx.IValueInfoProto[];
  readonly initializers: readonly onnx.ITensorProto[];
  readonly nodes: readonly onnx.INodeProto[];
  readonly doc: string;
  /** The builder that wrote the graph, recorded as the model's producer. */
  readonly producer: string;
}

/** Opset 17 is supported by every onnxruntime this project can meet; IR 8 is what onnx-proto knows. */
const OPSET = 17;
const IR_VERSION = 8;

/** Serialises a graph into `.onnx` bytes. Same parts in, same bytes out. */
export function encodeModel(parts: GraphParts): Uint8Array {
  const model = ModelProto.create({
    irVersion: IR_VERSION,
    opsetImport: [{ domain: '', version: OPSET }],
    producerName: parts.producer,
    producerVersion: '1',
    docString: parts.doc,
    graph: {
      name: parts.name,
      input: [...parts.inputs],
      output: [...parts.outputs],
      initializer: [...parts.initializers],
      node: [...parts.nodes],
    },
  });
  return ModelProto.encode(model).finish();
}
