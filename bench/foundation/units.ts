import { round as roundTo } from '../support';

/** This benchmark's figures carry two decimals unless told. */
export const round = (n: number, digits = 2) => roundTo(n, digits);

export const kb = (bytes: number) => round(bytes / 1024, 1);
