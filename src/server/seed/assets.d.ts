// Types of the asset files the bundler inlines (scripts/build.mjs `loader`; vitest.config.ts
// loads them the same way in tests): text files as a string, .snk key blobs as bytes.
declare module '*.html' {
  const text: string;
  export default text;
}
declare module '*.xml' {
  const text: string;
  export default text;
}
declare module '*.snk' {
  const bytes: Uint8Array;
  export default bytes;
}
