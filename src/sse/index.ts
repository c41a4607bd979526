export { parseSseText, SseParser, type SseFrame, serializeSseFrame } from './parse-sse-stream.js';
