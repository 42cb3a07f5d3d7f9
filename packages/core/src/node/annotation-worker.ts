import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { annotateSnapshot } from '../annotate/annotate-snapshot.js';
import { ValidationError } from '../errors/validation-error.js';
import type { DetectedObject } from '../model/observation-event.js';
import type { AnnotatedSnapshot, AnnotateOptions, Annotator } from '../ports.js';
import { describeValue } from '../validation/describe-value.js';

interface Job {
  id: number;
  image: Uint8Array;
  objects: readonly DetectedObject[];
  options: AnnotateOptions;
}

type Answer =
  | { id: number; ok: true; result: AnnotatedSnapshot }
  | {
      id: number;
      ok: false;
      error: { message: string; validation?: { parameter: string; given: string; allowed: string } };
    };

/**
 * Answers annotation jobs in a worker thread: the file a host starts with `annotationWorker`
 * calls this and nothing else. Decoding, drawing and encoding a 1080p camera JPEG takes about
 * 250 ms of CPU (a noisier image up to a second): on the host's main thread that time stalls every
 * flow, editor and dashboard.
 */
export function serveAnnotations(): void {
  if (isMainThread || !parentPort) throw new Error('serveAnnotations runs in a worker thread');
  const port = parentPort;
  port.on('message', (job: Job) => {
    let answer: Answer;
    try {
      answer = { id: job.id, ok: true, result: annotateSnapshot(job.image, job.objects, job.options) };
    } catch (error) {
      const validation = ValidationError.isInstance(error)
        ? { parameter: error.parameter, given: error.given, allowed: error.allowed }
        : undefined;
      answer = {
        id: job.id,
        ok: false,
        error: {
          message: error instanceof Error ? error.message : String(error),
          ...(validation ? { validation } : {}),
        },
      };
    }
    // Moved, not copied, when the result owns its whole buffer (a pooled small Buffer does not).
    const data = answer.ok ? answer.result.data : undefined;
    const transfer =
      data && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength
        ? [data.buffer as ArrayBuffer]
        : [];
    port.postMessage(answer, transfer);
  });
}

export interface AnnotationWorker {
  /** Core's `annotateSnapshot`, run in a worker thread; the same results and the same errors. */
  annotate: Annotator;
  /** Stops the worker; jobs still running are rejected. */
  close(): Promise<void>;
}

export interface AnnotationWorkerOptions {
  /** Worker threads (default 1, at most 16): each draws one image at a time. */
  threads?: number;
}

/**
 * Worker threads that annotate snapshots, each started on its first job and not keeping the
 * process alive while idle; a job goes to the thread with the fewest jobs. `workerFile` is a
 * script that calls `serveAnnotations()` (hosts that bundle core ship one next to their bundle).
 * A thread that dies rejects its jobs and is started again for the next one.
 */
export function annotationWorker(
  workerFile: string | URL,
  options: AnnotationWorkerOptions = {},
): AnnotationWorker {
  const threads = options.threads ?? 1;
  if (!Number.isSafeInteger(threads) || threads < 1 || threads > 16) {
    throw new ValidationError('threads', describeValue(threads), 'a whole number from 1 to 16');
  }
  const pool = Array.from({ length: threads }, () => oneThread(workerFile));
  return {
    annotate(image, objects, drawing) {
      const idle = pool.reduce((best, thread) => (thread.jobs() < best.jobs() ? thread : best));
      return idle.annotate(image, objects, drawing);
    },
    async close() {
      await Promise.all(pool.map((thread) => thread.close()));
    },
  };
}

function oneThread(workerFile: string | URL): AnnotationWorker & { jobs(): number } {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, { resolve(result: AnnotatedSnapshot): void; reject(error: Error): void }>();

  const failAll = (error: Error) => {
    for (const job of pending.values()) job.reject(error);
    pending.clear();
  };
  const started = (): Worker => {
    if (worker) return worker;
    const created = new Worker(workerFile);
    created.unref();
    created.on('message', (answer: Answer) => {
      const job = pending.get(answer.id);
      if (!job) return;
      pending.delete(answer.id);
      if (pending.size === 0) created.unref();
      if (answer.ok) {
        const { result } = answer;
        job.resolve({
          ...result,
          data: Buffer.from(result.data.buffer, result.data.byteOffset, result.data.byteLength),
        });
      } else if (answer.error.validation) {
        const { parameter, given, allowed } = answer.error.validation;
        job.reject(new ValidationError(parameter, given, allowed));
      } else {
        job.reject(new Error(answer.error.message));
      }
    });
    const gone = (error: Error) => {
      if (worker === created) worker = undefined;
      failAll(error);
    };
    created.on('error', gone);
    created.on('exit', (code) => gone(new Error(`the annotation worker stopped (exit code ${code})`)));
    worker = created;
    return created;
  };

  return {
    jobs: () => pending.size,
    annotate(image, objects, drawing) {
      const running = started();
      const id = nextId++;
      // A copy the worker owns: the caller's buffer may be a slice of a shared pool.
      const copy = new Uint8Array(image);
      return new Promise<AnnotatedSnapshot>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        // Busy: keep the process alive until the answer is in.
        running.ref();
        running.postMessage({ id, image: copy, objects, options: drawing } satisfies Job, [copy.buffer]);
      });
    },
    async close() {
      const running = worker;
      worker = undefined;
      failAll(new Error('the annotation worker was closed'));
      await running?.terminate();
    },
  };
}
