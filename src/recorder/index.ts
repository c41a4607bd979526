export { type RecordToFileOptions, recordToFile } from './record-to-file.js';
export { type RecordingProxy, type RecordingProxyOptions, startRecordingProxy } from './recording-proxy.js';
export { publicTarget } from './target.js';
