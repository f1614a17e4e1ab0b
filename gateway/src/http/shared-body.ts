/**
 * JSON bodies built from a shared answer (a `shared` service call, ADR 0197: the same object for
 * the same bytes), built and turned into JSON text once per answer and variant instead of per
 * request. Handlers answer the text as `HandlerResult.json`.
 */
export function sharedJsonBodies<S extends object, V>(build: (answer: S, variant: V) => object): (answer: S, variant: V) => string {
  const texts = new WeakMap<S, Map<V, string>>();
  return (answer, variant) => {
    let variants = texts.get(answer);
    if (!variants) texts.set(answer, (variants = new Map()));
    let text = variants.get(variant);
    if (text === undefined) {
      // What express's res.json writes with the app's defaults (no replacer, spaces or escaping).
      text = JSON.stringify(build(answer, variant));
      variants.set(variant, text);
    }
    return text;
  };
}
