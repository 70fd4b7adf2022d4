import type { Pooling } from './modelFolder';

/**
 * Sentence embeddings from token embeddings, as sentence-transformers' Pooling module computes them, over the
 * unpadded positions only (padding is masked out; real encoders emit non-zero vectors there):
 *   mean           the average
 *   cls            the first position
 *   max            the largest value of each dimension
 *   lasttoken      the last unpadded position (batches are padded on the right)
 *   mean_sqrt_len  the sum divided by the square root of the length
 *   weightedmean   positions weighted 1, 2, 3, ... (later tokens count more), divided by the weights' sum
 * then, when `normalize`, division by the L2 norm (max(norm, 1e-12), as torch's F.normalize).
 *
 * `hidden` is [batch, seqLen, dim] row-major; row r of the batch goes to dest row rows[r].
 */
export function poolInto(
  hidden: Float32Array,
  batch: number,
  seqLen: number,
  dim: number,
  lengths: Int32Array,
  mode: Pooling,
  normalize: boolean,
  dest: Float32Array,
  rows: ArrayLike<number>,
): void {
  const acc = new Float64Array(dim);
  for (let r = 0; r < batch; r++) {
    const base = r * seqLen * dim;
    const len = lengths[r];
    switch (mode) {
      case 'cls':
        for (let k = 0; k < dim; k++) acc[k] = hidden[base + k];
        break;
      case 'lasttoken': {
        const off = base + Math.max(len - 1, 0) * dim;
        for (let k = 0; k < dim; k++) acc[k] = hidden[off + k];
        break;
      }
      case 'max':
        acc.fill(len > 0 ? -Infinity : 0);
        for (let j = 0; j < len; j++) {
          const off = base + j * dim;
          for (let k = 0; k < dim; k++) if (hidden[off + k] > acc[k]) acc[k] = hidden[off + k];
        }
        break;
      default: {
        acc.fill(0);
        let weights = 0;
        for (let j = 0; j < len; j++) {
          const w = mode === 'weightedmean' ? j + 1 : 1;
          weights += w;
          const off = base + j * dim;
          for (let k = 0; k < dim; k++) acc[k] += w * hidden[off + k];
        }
        const inv = mode === 'mean_sqrt_len' ? 1 / Math.sqrt(Math.max(len, 1e-9)) : 1 / Math.max(weights, 1e-9);
        for (let k = 0; k < dim; k++) acc[k] *= inv;
      }
    }
    let scale = 1;
    if (normalize) {
      let sq = 0;
      for (let k = 0; k < dim; k++) sq += acc[k] * acc[k];
      scale = 1 / Math.max(Math.sqrt(sq), 1e-12);
    }
    const out = rows[r] * dim;
    for (let k = 0; k < dim; k++) dest[out + k] = acc[k] * scale;
  }
}
