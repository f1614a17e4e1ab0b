/**
 * Bodies built from a shared answer (a `shared` service call, ADR 0197: the same object for the
 * same bytes), built and turned into JSON once per answer and variant instead of per request.
 * Nothing may change such a body once built.
 */
const reusable = new WeakSet<object>();
const texts = new WeakMap<object, string>();

/** `build` memoised per answer object and variant (e.g. whether the caller is an admin). */
export function sharedBodies<S extends object, V, B extends object>(build: (answer: S, variant: V) => B): (answer: S, variant: V) => B {
  const bodies = new WeakMap<S, Map<V, B>>();
  return (answer, variant) => {
    let variants = bodies.get(answer);
    if (!variants) bodies.set(answer, (variants = new Map()));
    let body = variants.get(variant);
    if (!body) {
      body = build(answer, variant);
      variants.set(variant, body);
      reusable.add(body);
    }
    return body;
  };
}

/** The JSON text of a body built by `sharedBodies`, made once; undefined for any other body. */
export function sharedJson(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || !reusable.has(body)) return undefined;
  let text = texts.get(body);
  if (text === undefined) {
    // What express's res.json writes with the app's defaults (no replacer, spaces or escaping).
    text = JSON.stringify(body);
    texts.set(body, text);
  }
  return text;
}
