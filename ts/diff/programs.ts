/**
 * Do two dumps come from the same program? Two signals, both read from the dumps:
 *  1. the main class: the first word of the `sun.java.command` system property (the JVM records
 *     the command line there; for `java -jar` it is the jar's file name);
 *  2. the application classes: class names outside the platform's own packages (java., javax.,
 *     jdk., sun., com.sun., org.w3c., org.xml., org.ietf., android., dalvik., libcore., and
 *     primitive arrays). Their overlap is the shared names over the smaller set.
 * Verdict `different` when both main classes are known and differ, or when fewer than half of
 * the smaller set's application classes are shared; `same` when the known signals agree;
 * `unknown` when neither signal is available (e.g. Android dumps without system properties and
 * with no application classes).
 */
import { withoutHiddenSuffix } from './hidden.js';
import type { SameProgram } from './model.js';

/** Below this overlap (percent) the dumps count as different programs. */
export const MIN_OVERLAP_PERCENT = 50;

const PLATFORM = /^(java|javax|jdk|sun|com\.sun|org\.w3c|org\.xml|org\.ietf|android|dalvik|libcore)\./;
const PRIMITIVE = /^(boolean|byte|char|short|int|long|float|double)$/;

/** Application class names of a dump (array classes counted as their element class). */
export function applicationClasses(classNames: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const name of classNames) {
    const element = name.replace(/(\[\])+$/, '');
    if (PLATFORM.test(element) || PRIMITIVE.test(element)) continue;
    // Hidden classes (lambdas) carry an address that changes with every run.
    out.add(withoutHiddenSuffix(element));
  }
  return out;
}

export function sameProgram(
  baseline: { mainClass: string | null; classNames: Iterable<string> },
  current: { mainClass: string | null; classNames: Iterable<string> },
): SameProgram {
  const a = applicationClasses(baseline.classNames);
  const b = applicationClasses(current.classNames);
  let shared = 0;
  for (const n of a) if (b.has(n)) shared++;
  const smaller = Math.min(a.size, b.size);
  const overlapPercent = smaller === 0 ? null : (shared * 100) / smaller;
  const mainKnown = baseline.mainClass !== null && current.mainClass !== null;
  const mainDiffers = mainKnown && baseline.mainClass !== current.mainClass;
  const lowOverlap = overlapPercent !== null && overlapPercent < MIN_OVERLAP_PERCENT;
  const verdict = mainDiffers || lowOverlap ? 'different' : mainKnown || overlapPercent !== null ? 'same' : 'unknown';
  const reasons: string[] = [];
  if (mainDiffers) reasons.push(`the main class is ${baseline.mainClass} in the baseline but ${current.mainClass} in the current dump`);
  if (overlapPercent !== null && (lowOverlap || mainDiffers)) {
    reasons.push(`${shared} of ${smaller} application classes are shared (${overlapPercent.toFixed(1)}%)`);
  }
  return {
    verdict,
    baselineMainClass: baseline.mainClass,
    currentMainClass: current.mainClass,
    applicationClasses: { baseline: a.size, current: b.size, shared, overlapPercent },
    note:
      verdict === 'different'
        ? `The two dumps seem to come from different programs: ${reasons.join('; ')}. A comparison only means something between dumps of the same application.`
        : null,
  };
}
