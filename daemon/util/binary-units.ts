const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** Bytes in the largest binary unit (KiB to TiB) that keeps the number at 1 or more; null under 1 KiB. */
export function inBinaryUnits(bytes: number): { value: number; unit: string } | null {
  let value = bytes;
  let unit = -1;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit < 0 ? null : { value, unit: UNITS[unit] };
}
