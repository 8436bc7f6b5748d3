import { OPTION_BY_KEY, isMarketplaceSettingKey, marketplaceEnv } from '../config/options.js';
import { settingFlag } from './setting-flags.js';
import type { MissingSettingsError, RequiredSetting, SwitchTo, WaysToGive } from '../prepare/missing-settings.js';

function placeholder(setting: RequiredSetting): string {
  const value = OPTION_BY_KEY.get(setting)?.perRun;
  return typeof value === 'string' ? `<${value}>` : '<value>';
}

/**
 * The ways to give one setting on the command line besides the rows, from the one options table: flag, variable,
 * profile. For a setting only some marketplaces of the run lack, their own variable and profile section.
 */
export const cliWays: WaysToGive = (setting, marketplaces) => {
  const option = OPTION_BY_KEY.get(setting);
  const flagSpec = option === undefined ? undefined : settingFlag(option);
  const value = placeholder(setting);
  if (marketplaces.length > 0 && isMarketplaceSettingKey(setting)) {
    const envs = marketplaces.map((marketplace) => `${marketplaceEnv(marketplace, setting)}=${value}`).join(', ');
    const sections = marketplaces.map((marketplace) => `\`listings config set ${setting} ${value} --marketplace ${marketplace}\``).join(', ');
    return `${envs}, ${sections}${flagSpec === undefined ? '' : `, ${flagSpec} (for every marketplace)`}`;
  }
  const flag = flagSpec === undefined ? '' : `${flagSpec}, `;
  const env = option === undefined ? '' : `${option.env}=${value}, `;
  return `${flag}${env}\`listings config set ${setting} ${value}\``;
};

/** The CLI's way to set a switch the hint names: its flag (with its variable and profile for saved_defaults). */
const cliSwitch: SwitchTo = (setting, value) =>
  setting === 'saved_defaults' ? '--saved-defaults (LISTINGS_SAVED_DEFAULTS=true, or `listings config set saved_defaults true`)' : `--shape ${value}`;

/** A MissingSettingsError as the CLI says it: each setting's flag, variable and `config set`, and the CLI's hint. */
export function wordMissingSettings(error: MissingSettingsError): { message: string; hint: string } {
  return error.describe(cliWays, cliSwitch);
}
