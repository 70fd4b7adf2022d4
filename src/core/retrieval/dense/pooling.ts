import type { Pooling } from './modelFolder';

/**
 * Sentence embeddings from token embeddings, as sentence-transformers computes them:
 *   mean: the average over unpadded positions (padding is masked out; real encoders emit non-zero vectors there)
 *   cls:  the first position
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
    if (mode === 'cls') {
      for (let k = 0; k < dim; k++) acc[k] = hidden[base + k];
    } else {
      acc.fill(0);
      const len = lengths[r];
      for (let j = 0; j < len; j++) {
        const off = base + j * dim;
        for (let k = 0; k < dim; k++) acc[k] += hidden[off + k];
      }
      const inv = 1 / Math.max(len, 1e-9);
      for (let k = 0; k < dim; k++) acc[k] *= inv;
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
