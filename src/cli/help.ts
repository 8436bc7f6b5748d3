import { Help, type Command, type Option } from 'commander';
import { GROUPS } from '../options/spec.js';
import { renderHelp, type Example, type HelpItem, type HelpModel, type HelpSection } from '../options/help/render.js';

/** The order of the help groups: the table's (src/options/spec.ts GROUPS), commander's own `Options:` last. */
const ORDER: readonly string[] = [...Object.values(GROUPS).filter((heading) => heading !== '').map((heading) => `${heading}:`), 'Options:'];

/**
 * The examples at the end of each command's `--help`, by command path. Every command has some (a test checks it);
 * they are written to be pasted as they are.
 */
export const EXAMPLES: Readonly<Record<string, readonly Example[]>> = {
  '': [
    ['listings publish fixtures/catalog.csv --sandbox', 'try it with no account: publish the demo catalog to an embedded sandbox'],
    ['listings init', 'set up a profile: base URL, key variable, marketplace, policies'],
    ['listings doctor', 'check the profile, the key and the service'],
    ['listings publish catalog.csv --report results.csv', 'publish a catalog, with a report of every row'],
  ],
  stream: [
    ['listings stream kafka://localhost:9092/products --group listings', 'publish each product change as it arrives; run more processes with the same group to scale out'],
    ['listings stream kafka://k1:9092,k2:9092/products --group listings --dead-letter kafka://k1:9092/products-dlq', 'failed and invalid messages to a dead-letter topic'],
    ['listings stream kafka://localhost:9092/products --group try --sandbox --from latest', 'try it against an embedded sandbox, from new messages only'],
  ],
  enqueue: [
    ['listings enqueue catalog.csv kafka://localhost:9092/products --report enqueued.csv', 'check every row as publish does and send each listing to the topic, keyed MARKETPLACE/SKU'],
    ['listings stream kafka://localhost:9092/products --group listings', 'then, on any number of machines: workers of one group publish it'],
  ],
  publish: [
    ['listings publish fixtures/catalog.csv --sandbox', 'try it with no account: an embedded sandbox on a free port'],
    ['listings publish fixtures/catalog.csv --sandbox --fail-rate 0.3 --seed 1', 'see retries and failed rows before a real service does it'],
    ['listings publish catalog.csv --report results.csv', 'publish with the active profile, and keep a report of every row'],
    ['listings publish catalog.csv --dry-run', 'everything but the network: read, map and validate every row'],
    ['listings publish s3://exports/nightly/ --changed-only --report results.xml --json', 'CI: only rows changed since the last run, a JUnit report, the summary as JSON'],
    ['listings publish export.csv --preset shopify --marketplace EBAY_US', "a shop system's export as it is"],
    ["listings publish products.json --json-path products --map 'sku=Variant SKU'", 'a column of another name'],
    ['listings publish catalog.csv --resume', 'go on after an interrupted run: rows already published are skipped'],
  ],
  validate: [
    ['listings validate fixtures/catalog.csv', 'check a catalog against the contract; nothing is sent'],
    ['listings validate export.csv --preset shopify --show-errors all', 'every error of a Shopify export'],
    ['listings validate catalog.csv --json --out requests.ndjson', 'the result as JSON, and the requests that would be sent'],
    ['cat catalog.csv | listings validate - --format csv', 'a catalog on stdin'],
  ],
  create: [
    ['listings create SKU-1 --image https://picsum.photos/id/1/600 --condition NEW', 'one listing, with the marketplace and policies of the profile'],
    ['listings create SKU-2 --shape wrapped --marketplace ebay --title "Blue mug" --json', 'the wrapped shape; print what the service answered'],
  ],
  config: [
    ['listings config set base_url https://api.example.com', 'store a setting in the active profile'],
    ['listings config set --profile staging base_url https://staging.example.com', 'in another profile'],
    ['listings config list', 'every setting in effect, and where it comes from'],
    ['listings config use staging', 'make staging the active profile'],
  ],
  'config set': [
    ['listings config set marketplace EBAY_US', 'in the active profile'],
    ['listings config set --profile staging saved_defaults true', 'in the profile staging'],
  ],
  'config get': [
    ['listings config get base_url', 'the value in effect'],
    ['LISTINGS_MARKETPLACE=EBAY_DE listings config get marketplace', 'the environment wins over the profile'],
  ],
  'config unset': [['listings config unset condition', 'remove a value from the active profile']],
  'config list': [
    ['listings config list', 'every setting in effect, and where it comes from'],
    ['listings config list --profile staging --json', 'another profile, as JSON'],
  ],
  'config path': [['listings config path', 'where the profiles are stored']],
  'config use': [['listings config use staging', 'commands now read the profile staging']],
  'config profiles': [['listings config profiles', 'the profiles; * marks the active one']],
  sandbox: [
    ['listings sandbox --port 4010', 'a sandbox on a fixed port; it prints its URL, then the key to use'],
    ['listings sandbox --port 0 --rate-limit 100 --latency 20-80', 'a busy service: 100 requests a second, 20 to 80 ms an answer'],
    ['listings sandbox --fail-rate 0.1 --fail-status 503 --seed 7', 'a failing service, the same way on every run'],
    ['listings sandbox --saved-defaults --verbose', 'a workspace with saved Marketplace configurations; log each request'],
    ['listings sandbox --port 4010 --webhook-url http://127.0.0.1:8787/ --webhook-secret whsec_demo', 'post a signed callback to a `listings listen` after each listing created'],
    ['curl -X POST http://127.0.0.1:4010/_sandbox/outage -d \'{"ms":5000,"status":503}\'', 'an outage: every listing request answered 503 for the next 5 seconds'],
  ],
  listen: [
    ['listings listen', 'print the callbacks posted to http://127.0.0.1:8787/'],
    ['WEBHOOK_SECRET=whsec_demo listings listen --secret-env WEBHOOK_SECRET --record hooks.ndjson', 'check each signature (401 when wrong), and record what arrives'],
    ['listings listen --port 8787 --forward-to http://localhost:3000/webhooks --json', 'send each callback on to a local app; print NDJSON'],
    ['listings listen --replay hooks.ndjson --forward-to http://localhost:3000/webhooks', 'send a recording again, byte for byte, and exit'],
  ],
  doctor: [
    ['listings doctor', 'check the active profile, the key, the service and this directory'],
    ['listings doctor --profile staging', 'another profile'],
    ['listings doctor --base-url http://127.0.0.1:4010 --json', 'a local sandbox, the checks as JSON'],
  ],
  init: [
    ['listings init', 'asked question by question (in a terminal)'],
    ['listings init --yes --base-url https://api.example.com --marketplace EBAY_US --saved-defaults', 'unattended, for a workspace with saved Marketplace configurations'],
    [
      'listings init --yes --profile staging --base-url https://staging.example.com --marketplace EBAY_US --merchant-location-key loc-1 --fulfillment-policy-id fp-1 --payment-policy-id pp-1 --return-policy-id rp-1',
      'unattended, with the location key and policy ids',
    ],
  ],
  completion: [
    ['source <(listings completion bash)', 'completion in this bash session'],
    ['listings completion bash > ~/.local/share/bash-completion/completions/listings', 'in every bash session'],
    ['listings completion zsh > "${fpath[1]}/_listings"', 'zsh (then start a new shell)'],
    ['listings completion fish > ~/.config/fish/completions/listings.fish', 'fish'],
  ],
};

/** `config list` for the subcommand list of config; '' for the program itself. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** commander's grouping, with the groups in the order of ORDER. */
function groupItems<T extends Command | Option>(this: Help, unsorted: T[], visible: T[], getGroup: (item: T) => string): Map<string, T[]> {
  const groups = Help.prototype.groupItems.call(this, unsorted, visible, getGroup as (item: Command | Option) => string) as Map<string, T[]>;
  const rank = (heading: string): number => ORDER.indexOf(heading);
  return new Map([...groups].sort((a, b) => rank(a[0]) - rank(b[0])));
}

/** commander's description of an option, without the `(default: [])` of a repeatable one (its help says so). */
function optionDescription(this: Help, option: Option): string {
  return Help.prototype.optionDescription.call(this, option).replace(' (default: [])', '');
}

/** The help of `command` as plain data, from commander's view of it (which options and commands it shows, and how). */
export function helpModel(command: Command, helper: Help): HelpModel {
  const options = helper.groupItems([...command.options], helper.visibleOptions(command), (option) => option.helpGroupHeading ?? 'Options:');
  const commands = helper.groupItems([...command.commands], helper.visibleCommands(command), (sub) => sub.helpGroup() || 'Commands:');
  const sections: HelpSection[] = [
    { heading: 'Arguments:', items: helper.visibleArguments(command).map((arg): HelpItem => [helper.argumentTerm(arg), helper.argumentDescription(arg)]) },
    ...[...options].map(([heading, list]) => ({ heading, items: list.map((option): HelpItem => [helper.optionTerm(option), helper.optionDescription(option)]) })),
    ...[...commands].map(([heading, list]) => ({ heading, items: list.map((sub): HelpItem => [helper.subcommandTerm(sub), helper.subcommandDescription(sub)]) })),
  ];
  return { usage: helper.commandUsage(command), description: helper.commandDescription(command), sections, examples: EXAMPLES[commandPath(command)] ?? [] };
}

/** Every command's help in the layout of src/options/help/render.ts, the one bin/listings.js prints from dist/help.json. */
const formatHelp = (command: Command, helper: Help): string => renderHelp(helpModel(command, helper), helper.helpWidth ?? 80);

/** The last touch on every command's help: the groups in one order, one layout, examples at the end. Cheap: no module is loaded. */
export function finishHelp(command: Command): void {
  command.configureHelp({ groupItems, optionDescription, formatHelp });
  command.commands.forEach(finishHelp);
}
