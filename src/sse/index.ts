export { parseSseText, type SseFrame, SseParser, serializeSseFrame } from './parse-sse-stream.js';
