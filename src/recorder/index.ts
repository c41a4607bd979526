export { checkCassetteTarget } from './cassette-target.js';
export { JournalError, journalPath, type Recovered, readJournal } from './journal/index.js';
export { abortable, type RecordToFileOptions, recordToFile } from './record-to-file.js';
export { RecordingDispatcher, type RecordingDispatcherOptions, recordingDispatcher } from './recording-dispatcher.js';
export { type RecordingProxy, type RecordingProxyOptions, startRecordingProxy } from './recording-proxy.js';
export { publicTarget } from './target.js';
