/**
 * A real terminal emulator (xterm.js, headless) to see what bytes written to a terminal
 * leave on its screen: cursor moves, erases, wraps and all.
 */
import xterm from '@xterm/headless';

export interface Screen {
  /** every line of the screen, trailing blanks trimmed */
  lines: string[];
  /** the screen's lines with the ones the terminal wrapped joined again: what was written as one line */
  logical: string[];
  /** the cursor's column and row (0-based) */
  cursor: { x: number; y: number };
}

/** The screen of a `cols`×`rows` terminal after `bytes` were written to it (scrolled-off lines are not kept). */
export function renderScreen(bytes: string | Uint8Array, cols: number, rows: number): Promise<Screen> {
  const term = new xterm.Terminal({ cols, rows, scrollback: 0, allowProposedApi: true });
  return new Promise((resolve) => {
    term.write(bytes, () => {
      const b = term.buffer.active;
      const lines: string[] = [];
      const logical: string[] = [];
      for (let y = 0; y < rows; y++) {
        const line = b.getLine(b.viewportY + y);
        lines.push(line?.translateToString(true) ?? '');
        // untrimmed, so a space in the last column of a wrapped line is kept
        const cells = line?.translateToString(false) ?? '';
        if (line?.isWrapped && logical.length) logical[logical.length - 1] += cells;
        else logical.push(cells);
      }
      resolve({ lines, logical: logical.map((l) => l.trimEnd()), cursor: { x: b.cursorX, y: b.cursorY } });
      term.dispose();
    });
  });
}
