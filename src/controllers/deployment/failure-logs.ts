// Why a revision failed, in the words of its log: when a resource's latest revision becomes BUILD_FAILED
// or DEPLOY_FAILED, the tail of the matching log is read once and its telling error line (with the step
// it failed at) becomes the message of the Stalled/Ready conditions, hence of the one Warning Event and
// warn line. Values of the resource's own secrets are redacted first. A log that cannot be read costs
// that one call and leaves today's message. The choice of line is pure; the one read is the edge.
import type { ListedLogs, LogTarget } from '../../service/client.ts';
import type { LogEntry, LogsRequest } from '../../service/wire.ts';

/** The revision statuses whose log says why. */
const logOf: Record<string, 'build' | 'deploy'> = { BUILD_FAILED: 'build', DEPLOY_FAILED: 'deploy' };
/** How much of the log's end is read: enough to hold the failing step's announcement. */
export const tailLength = 100;
/** One read, bounded: a reconcile does not wait long for a message. */
const readTimeoutMs = 10_000;
const maxLine = 200;
const maxStep = 80;

const errorLevels: ReadonlySet<string> = new Set(['error', 'critical', 'fatal']);
const isError = (e: LogEntry) =>
  errorLevels.has(e.level.toLowerCase()) || /^\s*(ERROR|FATAL)\b/.test(e.message);
/** Error lines that only repeat that something failed: an exit code, a back-off, a traceback's frames. */
const generic =
  /exit(?:ed)? (?:with )?(?:code|status)|non-zero (?:exit )?code|CrashLoopBackOff|^Traceback \(most recent call last\)|^\s+File "|^(?:Build|Deploy) failed\b/i;
/** How logs announce a step: `Step 3/5 : RUN cmd` (docker), `#7 [3/5] RUN cmd` (BuildKit), `Running: cmd`. */
const stepPatterns = [
  /^Step \d+\/\d+ ?: (?:RUN )?(.+)$/,
  /^#\d+ \[[^\]]*\] (?:RUN )?(.+)$/,
  /^Running: (.+)$/,
];

/** Every occurrence of each value replaced, longest first (one value may hold another). */
export function redact(text: string, values: readonly string[]): string {
  const sorted = [...new Set(values)].filter((v) => v !== '').sort((a, b) => b.length - a.length);
  return sorted.reduce((out, v) => out.replaceAll(v, '[redacted]'), text);
}

const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
};

/**
 * The telling error line of a log (oldest entry first) and the step it failed at: the last error line
 * that says more than "it failed" (else the last error line), and the last step announced before it.
 * Secret values are redacted before anything is cut.
 */
export function failureLine(
  entries: readonly LogEntry[],
  secrets: readonly string[],
): { line: string; step?: string } | undefined {
  const errors = entries.map((e, i) => ({ e, i })).filter(({ e }) => isError(e));
  const chosen = errors.findLast(({ e }) => !generic.test(e.message)) ?? errors.at(-1);
  if (!chosen) return undefined;
  const line = oneLine(redact(chosen.e.message, secrets), maxLine);
  for (let i = chosen.i; i >= 0; i--) {
    const match = stepPatterns.map((p) => p.exec(entries[i]!.message.trim())).find(Boolean);
    if (match) return { line, step: oneLine(redact(match[1]!, secrets), maxStep) };
  }
  return { line };
}

/** The conditions' message for a failed revision whose log says why. */
export function failureMessage(
  revision: { id: string; status: string },
  found: { line: string; step?: string },
): string {
  return found.step
    ? `revision ${revision.id} failed at "${found.step}": ${found.line}`
    : `revision ${revision.id} is ${revision.status}: ${found.line}`;
}

/** Whether a message already told (e.g. by an earlier process) is about this failed revision. */
export const isAbout = (message: string | undefined, revisionId: string): message is string =>
  message?.startsWith(`revision ${revisionId} `) ?? false;

export interface FailedRevision {
  deploymentId: string;
  revision: { id: string; status: string };
}

export type ReadLogs = (
  target: LogTarget,
  body: LogsRequest,
  options: { signal: AbortSignal },
) => Promise<ListedLogs>;

/**
 * What each resource's latest failed revision's log says, per resource key: read once per deployment,
 * revision and status, and held only while that is the resource's latest failure.
 */
export class FailureLogs {
  readonly #held = new Map<string, { failure: string; message: string | undefined }>();

  /**
   * The message for the failed revision, or undefined when its log has none to give. `told` is the
   * message the resource shows now: when it is about this revision (a restart), it is kept, not read again.
   */
  async messageFor(
    key: string,
    failed: FailedRevision,
    told: string | undefined,
    secrets: readonly string[],
    read: ReadLogs,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const kind = logOf[failed.revision.status];
    if (!kind) {
      this.#held.delete(key);
      return undefined;
    }
    const failure = `${failed.deploymentId}/${failed.revision.id}/${failed.revision.status}`;
    const held = this.#held.get(key);
    if (held?.failure === failure) return held.message;
    let message: string | undefined;
    if (isAbout(told, failed.revision.id)) message = told;
    else {
      const target = { deploymentId: failed.deploymentId, revisionId: failed.revision.id, kind };
      try {
        const page = await read(
          target,
          { order: 'desc', limit: tailLength },
          { signal: AbortSignal.any([signal, AbortSignal.timeout(readTimeoutMs)]) },
        );
        const found = failureLine([...page.logs].reverse(), secrets);
        message = found && failureMessage(failed.revision, found);
      } catch (err) {
        // Shutting down is not "no log": the next process reads it.
        if (signal.aborted) throw err;
        // Unavailable (404, 403, an install without logs, trouble): today's message, and no second call.
        message = undefined;
      }
    }
    this.#held.set(key, { failure, message });
    return message;
  }

  /** The resource is gone, or its latest revision no longer failed. */
  forget(key: string): void {
    this.#held.delete(key);
  }
}
