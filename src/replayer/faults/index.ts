export { breakAnswer, breakSession, refusal, type StreamCut, streamCut } from './apply.js';
export { checkedFaults, parseFaultSpec, readFaultsFile } from './parse.js';
export { type ChosenFault, FAULTS_KEPT, FaultPlan, type Transport } from './plan.js';
export { type FaultKind, type FaultRule, type FaultsFile, faultRuleSchema, faultsFileSchema, type InjectedFault } from './schema.js';
