/** What a page may ask of the shell (app.ts): show a message, run an action with its errors shown, draw a page again. */
export type Shell = {
  say(message: string): void;
  act(action: () => Promise<void>): Promise<void>;
  redraw(): void;
  /** From a destination's page back to the list it was opened from (after the destination is removed, there is no page). */
  back(): void;
};
