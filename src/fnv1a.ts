/** 32-bit FNV-1a: the offset basis and the prime (the hot paths that hash while copying use them directly). */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a of the first `length` bytes, as an unsigned integer. */
export function fnv1a32Bytes(bytes: Uint8Array, length = bytes.length): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < length; i++) hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME);
  return hash >>> 0;
}
