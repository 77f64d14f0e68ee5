/** What working one job did, by what became of its events (for logs and tests). */
export interface JobReport {
  /** The job was not due yet and went back to the retry queue. */
  hopped: boolean;
  /** Delivered: by this job's requests, or already by a late answer to an earlier one (not sent again). */
  delivered: number;
  retried: number;
  /** Ended without success (handed to the dead-letter step, or dropped with their subscription). */
  ended: number;
  /** Not attempted before the deadline; re-queued as they were. */
  deferred: number;
  /** Held back without an attempt (probation, or a stalled endpoint). */
  held: number;
  /** Passed on untouched as the delivery jobs of a fan-out, for any worker to take. */
  queued: number;
  /** Sent to (or written into) the subscription's backlog. */
  stored: number;
}

export const emptyReport = (): JobReport => ({
  hopped: false,
  delivered: 0,
  retried: 0,
  ended: 0,
  deferred: 0,
  held: 0,
  queued: 0,
  stored: 0,
});

/** The reports of several jobs as one. */
export const addReports = (reports: readonly JobReport[]): JobReport =>
  reports.reduce(
    (sum, report) => ({
      hopped: sum.hopped || report.hopped,
      delivered: sum.delivered + report.delivered,
      retried: sum.retried + report.retried,
      ended: sum.ended + report.ended,
      deferred: sum.deferred + report.deferred,
      held: sum.held + report.held,
      queued: sum.queued + report.queued,
      stored: sum.stored + report.stored,
    }),
    emptyReport(),
  );
