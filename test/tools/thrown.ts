/** The error of type `type` that `run` throws; any other error is rethrown, and no error fails the test. */
export function thrown<E extends Error>(run: () => unknown, type: abstract new (...args: never[]) => E, what: string): E {
  try {
    run();
  } catch (e) {
    if (e instanceof type) return e;
    throw e;
  }
  throw new Error(`no ${type.name}: ${what}`);
}

/** The error of type `type` that `run` rejects with, as `thrown` for a promise. */
export async function rejection<E extends Error>(run: Promise<unknown>, type: abstract new (...args: never[]) => E, what = 'the call resolved'): Promise<E> {
  try {
    await run;
  } catch (e) {
    if (e instanceof type) return e;
    throw e;
  }
  throw new Error(`no ${type.name}: ${what}`);
}
