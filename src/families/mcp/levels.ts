/** MCP's logging levels (RFC 5424's syslog severities), lowest first: a level set lets through it and those after it. */
export const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
