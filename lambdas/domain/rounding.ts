/** A figure rounded to hundredths, as shiftq gives every amount, hour count and average it computes. */
export const round2 = (n: number): number => Math.round(n * 100) / 100;
