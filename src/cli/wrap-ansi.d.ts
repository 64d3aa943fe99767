// Types of wrap-ansi 6 (CommonJS, no types of its own): the text wrapped to `columns`
// display columns with `\n`, ANSI codes and wide characters measured as string-width does.
declare module 'wrap-ansi' {
  export default function wrapAnsi(
    input: string,
    columns: number,
    options?: { hard?: boolean; wordWrap?: boolean; trim?: boolean },
  ): string;
}
