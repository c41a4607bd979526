import { InfrastructureError } from '../../suite/errors.js';

/** The server could not be brought to the point where a probe can run. */
export class ProvisioningError extends InfrastructureError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('provisioning', message, { ...options, exitCode: 1 });
  }
}

/** The server answered a driver request with an unexpected status. */
export class ServerResponseError extends InfrastructureError {
  constructor(
    readonly status: number,
    readonly route: string,
    body: string,
  ) {
    super('server_response', `${route} answered ${status}: ${body.slice(0, 200)}`, { exitCode: 1 });
  }
}
