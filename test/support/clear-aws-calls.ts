/**
 * The integration project's global setup: its run records its AWS calls (`aws-calls.ts`) and its
 * API exchanges (`api-contract.ts`) afresh.
 */
import { clearContractRecords } from './api-contract';
import { clearRecordedCalls } from './aws-calls';

export default function clearAwsCalls(): void {
  clearRecordedCalls();
  clearContractRecords();
}
