import type { Handler } from '../routes/define.js';

/**
 * POST /user/suspend (document 1, section C): suspends the member in this resource and revokes
 * its sessions here. The spec shows no body; `{result: true}` as logout answers.
 */
export const suspendMember: Handler<'member'> = async (context, _input, { memberAccess }) => {
  await memberAccess.suspendMember({ userId: context.caller.user.id, resourceId: context.resource.id }, { requestId: context.requestId });
  return { body: { result: true } };
};

/**
 * DELETE /user/profile: removes the member's profile from this resource (its memberships are
 * kept, docs/adr/0071) and revokes its sessions here. `{result: true}` as for suspension.
 */
export const removeProfile: Handler<'member'> = async (context, _input, { memberAccess }) => {
  await memberAccess.removeMemberProfile(
    { userId: context.caller.user.id, resourceId: context.resource.id },
    { requestId: context.requestId },
  );
  return { body: { result: true } };
};
