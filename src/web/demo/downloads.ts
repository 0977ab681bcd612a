/** What boot.ts hands the demo page: the downloads it started, and when. */
export interface Downloads {
  started: number;
  wasm: Promise<Response>;
  ip4?: Promise<Response>;
  ip6?: Promise<Response>;
  mac?: Promise<Response>;
}
