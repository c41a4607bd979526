// The journal beside a cassette being recorded (decision 0007): its format, the writer, and the reader `bench recover` uses.
export { type JournalEntry, JournalError, journalPath } from './format.js';
export { type Recovered, readJournal } from './reader.js';
export { JournalWriter } from './writer.js';
