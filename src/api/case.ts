// CRD fields are the camelCase of the service's snake_case wire fields (DESIGN.md §2).

export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

export function camelCase<S extends string>(snake: S): CamelCase<S> {
  return snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) as CamelCase<S>;
}
