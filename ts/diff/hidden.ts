/**
 * Hidden classes (lambdas, `LambdaForm$MH`, …) carry the address of their class in the process
 * that made them: `Foo$$Lambda$2+0x00007fb9bd046168` (JDK 17), `Foo$$Lambda+0x0000000013005450`
 * (JDK 21+). The JVM's own form has `/` where the dump's has `+`; a dumper that turned the `/`
 * into a package dot would give `.0x…`. The address differs between two runs of one program, so
 * the diff matches such classes by the name with the address replaced by `0x…`:
 * `Foo$$Lambda$2+0x…` (array classes keep their `[]`). No Java identifier begins with a digit,
 * so no other class name ends that way.
 */
const HIDDEN_SUFFIX = /([+/.])0x[0-9a-f]+((?:\[\])*)$/i;

/** `Foo$$Lambda$2+0x00007fb9bd046168[]` → `Foo$$Lambda$2+0x…[]`; other names unchanged. */
export function hiddenClassKey(className: string): string {
  return className.replace(HIDDEN_SUFFIX, '$10x…$2');
}

/** `Foo$$Lambda$2+0x00007fb9bd046168` → `Foo$$Lambda$2` (array classes keep their `[]`); other names unchanged. */
export function withoutHiddenSuffix(className: string): string {
  return className.replace(HIDDEN_SUFFIX, '$2');
}
