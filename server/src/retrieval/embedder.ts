/** Turns texts into vectors; the name is recorded beside every vector so a model change re-embeds. */
export interface Embedder {
  readonly name: string;
  readonly dimensions: number;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}
