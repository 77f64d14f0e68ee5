/** The integration project's global setup: its run records its AWS calls afresh (`aws-calls.ts`). */
import { clearRecordedCalls } from './aws-calls';

export default function clearAwsCalls(): void {
  clearRecordedCalls();
}
