/** How long and how hard each scenario runs. */
export interface Settings {
  readonly quick: boolean;
  /** Concurrent workers (closed loop). */
  readonly connections: number;
  /** Length of each measured window. */
  readonly seconds: number;
  /** Measured windows per side; ours and the peer's alternate, so load from elsewhere weighs on both alike. */
  readonly rounds: number;
  readonly warmupSeconds: number;
}

export function settingsFor(quick: boolean, overrides: Partial<Settings> = {}): Settings {
  return {
    quick,
    connections: quick ? 4 : 20,
    seconds: quick ? 1.5 : 10,
    rounds: quick ? 1 : 3,
    warmupSeconds: quick ? 0.5 : 2,
    ...overrides,
  };
}
