/** The origin header the bench sends on every request (the server's internal sentinel). */
export const INTERNAL_ORIGIN = 'omnigent://internal';
