import { InfrastructureError } from '../kit/errors.js';

export { ServerResponseError } from '../kit/errors.js';

/** The server could not be brought to the point where a probe can run. */
export class ProvisioningError extends InfrastructureError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { ...options, code: 'provisioning' });
  }
}
