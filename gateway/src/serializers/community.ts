import type { Team } from '@masthead/proto/community';

export const serializeTeam = (team: Team): Record<string, unknown> => ({
  id: team.id,
  name: team.name,
  role: team.role,
  status: team.status,
});
