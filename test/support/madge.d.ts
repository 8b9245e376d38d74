/** The part of madge's API (https://github.com/pahen/madge) the architecture test uses; the package ships no types. */
declare module 'madge' {
  interface MadgeResult {
    obj(): Record<string, string[]>;
    circular(): string[][];
  }
  function madge(path: string | string[], config?: { fileExtensions?: string[]; tsConfig?: string; detectiveOptions?: unknown }): Promise<MadgeResult>;
  export default madge;
}
