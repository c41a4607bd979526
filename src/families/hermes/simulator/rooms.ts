import type { SeededIds } from '../../../net/seeded-ids.js';
import { GatewayError } from './errors.js';

export type RoomPermission = 'dispatch' | 'status' | 'stop' | 'approve';

interface Grant {
  token: string;
  roomId: string;
  memberId: string;
  revoked: boolean;
}

/** Room-member grants: issued by an invitation, presented as `Authorization: HermesRoom <token>`, revocable. */
export class RoomGrants {
  private readonly grants = new Map<string, Grant>();

  constructor(private readonly ids: SeededIds) {}

  /** POST /v1/room-members/invitations (API key). */
  invite(body: Record<string, unknown>): Record<string, unknown> {
    if (typeof body.room_id !== 'string' || typeof body.member_id !== 'string')
      throw new GatewayError(400, 'invalid_room_invitation', 'An invitation needs room_id and member_id');
    const grant: Grant = { token: `hrg_${this.ids.hex(32)}`, roomId: body.room_id, memberId: body.member_id, revoked: false };
    this.grants.set(grant.token, grant);
    const now = this.ids.now();
    return {
      object: 'hermes.room_member.invitation',
      grant: grant.token,
      grant_id: `grt_${this.ids.hex(16)}`,
      room_id: grant.roomId,
      member_id: grant.memberId,
      permissions: ['dispatch', 'status', 'stop', 'approve'],
      target_profile: 'default',
      catalog: { runs: true },
      expires_at: now + 3600,
      status_expires_at: now + 86_400,
    };
  }

  /** Checks a presented grant: unknown is 401 invalid_room_grant, revoked is 403 room_reauthorization_required. */
  check(token: string, _permission: RoomPermission): string {
    const grant = this.grants.get(token);
    if (!grant) throw new GatewayError(401, 'invalid_room_grant', 'The room grant is not valid');
    if (grant.revoked)
      throw new GatewayError(403, 'room_reauthorization_required', 'The room grant was revoked; ask the room for a new one');
    return token;
  }

  /** POST /v1/room-members/grants/revoke, authorised by the grant itself. */
  revoke(token: string): Record<string, unknown> {
    this.check(token, 'status');
    (this.grants.get(token) as Grant).revoked = true;
    return { object: 'hermes.room_member.grant', revoked: true };
  }
}
