import type { CrmTag } from '@masthead/proto/integrations/crm';
import type { ListRecord } from '@masthead/proto/integrations/listmgr';
import type { ProviderConfigSummary } from '@masthead/proto/integrations/provider_config';
import type { AdminClients } from './clients.js';

/**
 * Operator commands of the email-list and CRM providers (docs/adr/0164): per resource, the
 * provider secret (standard input only), settings, the CRM tags and the list manager's lists.
 */

export const PROVIDER_USAGE = `  set-provider-secret --resource-id N --provider audience|crm|listmgr
                                        reads the secret from standard input (never the command
                                        line): the audience or crm API key, or the listmgr OAuth
                                        tokens as JSON {"access_token": …, "refresh_token": …};
                                        integrations stores it sealed (INTEGRATIONS_SECRETS_KEYS)
  show-provider-config --resource-id N --provider audience|crm|listmgr
                                        settings, whether a secret is stored, its last four
                                        characters and the encryption key ID; never the secret
  set-audience-settings --resource-id N --list-id L [--interest-category TITLE] [--server us21]
  set-crm-settings --resource-id N [--account-name A] [--active]
                                        without --active the CRM operations answer 403
  set-listmgr-settings --resource-id N [--client-id C] [--custom-field KEY=source ...]
                       [--consent-to-track Yes|No|Unchanged]
                                        source: email, first_name, last_name, nick_name, phone,
                                        company, job, country, state, city, address, zip or extra.<name>
  import-crm-tags --resource-id N       copies the crm account's tags into the resource's tags
  set-crm-tag-flags --resource-id N --tag-id T [--allowed-for-users] [--required]
  list-crm-tags --resource-id N
  set-listmgr-list --resource-id N --list-id L --list-name NAME [--client-name C] [--confirmed-opt]
                   [--unsubscribe-settings S] [--show-list] [--require-list] [--allowed-list]
  remove-listmgr-list --resource-id N --list-id L
  list-listmgr-lists --resource-id N
  show-listmgr-state --resource-id N --email E
                                        the provider states cached for a member's email (600 s)
`;

export const PROVIDER_STRING_OPTIONS = [
  'provider',
  'list-id',
  'interest-category',
  'server',
  'account-name',
  'consent-to-track',
  'tag-id',
  'list-name',
  'client-name',
  'unsubscribe-settings',
];
export const PROVIDER_MULTIPLE_OPTIONS = ['custom-field'];
export const PROVIDER_FLAG_OPTIONS = [
  'active',
  'allowed-for-users',
  'required',
  'confirmed-opt',
  'show-list',
  'require-list',
  'allowed-list',
];

type Values = Record<string, string | boolean | string[] | undefined>;

/** The argument readers of cli.ts, handed in so that both files read options alike. */
export interface ArgReaders {
  text(values: Values, name: string): string;
  integer(values: Values, name: string): number;
  optional(values: Values, name: string): string | undefined;
  list(values: Values, name: string): string[];
  readStdin(): Promise<string>;
  usageError(message: string): Error;
}

/** A configuration as the operator sees it: never the secret. */
const showConfig = (summary: ProviderConfigSummary) => ({
  resource_id: summary.resourceId,
  provider: summary.provider,
  has_secret: summary.hasSecret,
  secret_last4: summary.secretLast4 || null,
  key_id: summary.keyId || null,
  settings: summary.settings ?? {},
  updated_at: summary.updatedAt || null,
});

const showTag = (tag: CrmTag) => ({
  id: tag.id,
  tag_id: tag.tagId,
  tag_type: tag.tagType,
  tag: tag.tag,
  description: tag.description,
  subscriber_count: tag.subscriberCount,
  allowed_for_users: tag.allowedForUsers,
  required: tag.required,
});

const showList = (list: ListRecord) => ({
  id: list.id,
  list_id: list.listId,
  list_name: list.listName,
  client_name: list.clientName,
  confirmed_opt: list.confirmedOpt,
  unsubscribe_settings: list.unsubscribeSettings,
  show_list: list.showList,
  require_list: list.requireList,
  allowed_list: list.allowedList,
});

type Command = (clients: AdminClients, values: Values) => Promise<unknown>;

export function providerCommands(args: ArgReaders): Record<string, Command> {
  const resourceId = (values: Values) => args.integer(values, 'resource-id');
  return {
    'set-provider-secret': async (clients, values) => {
      const secret = (await args.readStdin()).trim();
      if (!secret) throw args.usageError('pipe the provider secret on standard input');
      return showConfig(
        await clients.providerConfig.setProviderSecret({ resourceId: resourceId(values), provider: args.text(values, 'provider'), secret }),
      );
    },
    'show-provider-config': async (clients, values) =>
      showConfig(
        await clients.providerConfig.getProviderConfig({ resourceId: resourceId(values), provider: args.text(values, 'provider') }),
      ),
    'set-audience-settings': async (clients, values) =>
      showConfig(
        await clients.providerConfig.setAudienceSettings({
          resourceId: resourceId(values),
          listId: args.text(values, 'list-id'),
          interestCategory: args.optional(values, 'interest-category') ?? '',
          server: args.optional(values, 'server') ?? '',
        }),
      ),
    'set-crm-settings': async (clients, values) =>
      showConfig(
        await clients.providerConfig.setCrmSettings({
          resourceId: resourceId(values),
          accountName: args.optional(values, 'account-name') ?? '',
          active: values['active'] === true,
        }),
      ),
    'set-listmgr-settings': async (clients, values) => {
      const customFields = args.list(values, 'custom-field').map((entry) => {
        const separator = entry.indexOf('=');
        if (separator <= 0) throw args.usageError(`--custom-field must be KEY=source, not ${entry}`);
        return { key: entry.slice(0, separator), source: entry.slice(separator + 1) };
      });
      return showConfig(
        await clients.providerConfig.setListmgrSettings({
          resourceId: resourceId(values),
          clientId: args.optional(values, 'client-id') ?? '',
          customFields,
          consentToTrack: args.optional(values, 'consent-to-track') ?? '',
        }),
      );
    },
    'import-crm-tags': async (clients, values) => (await clients.crm.importTags({ resourceId: resourceId(values) })).items.map(showTag),
    'set-crm-tag-flags': async (clients, values) =>
      showTag(
        await clients.crm.setTagFlags({
          resourceId: resourceId(values),
          tagId: args.text(values, 'tag-id'),
          allowedForUsers: values['allowed-for-users'] === true,
          required: values['required'] === true,
        }),
      ),
    'list-crm-tags': async (clients, values) => (await clients.crm.listStoredTags({ resourceId: resourceId(values) })).items.map(showTag),
    'set-listmgr-list': async (clients, values) =>
      showList(
        await clients.listmgr.upsertList({
          id: 0,
          resourceId: resourceId(values),
          listId: args.text(values, 'list-id'),
          listName: args.text(values, 'list-name'),
          clientName: args.optional(values, 'client-name') ?? '',
          confirmedOpt: values['confirmed-opt'] === true,
          unsubscribeSettings: args.optional(values, 'unsubscribe-settings') ?? '',
          showList: values['show-list'] === true,
          requireList: values['require-list'] === true,
          allowedList: values['allowed-list'] === true,
        }),
      ),
    'remove-listmgr-list': async (clients, values) =>
      showList(await clients.listmgr.removeList({ resourceId: resourceId(values), listId: args.text(values, 'list-id') })),
    'list-listmgr-lists': async (clients, values) =>
      (await clients.listmgr.listStoredLists({ resourceId: resourceId(values) })).items.map(showList),
    'show-listmgr-state': async (clients, values) => {
      const cached = await clients.listmgr.getCachedStates({ resourceId: resourceId(values), email: args.text(values, 'email') });
      return {
        states: cached.states.map((state) => ({ list_id: state.listId, state: state.state })),
        expires_at: cached.expiresAt || null,
      };
    },
  };
}
