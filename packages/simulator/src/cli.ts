#!/usr/bin/env node
/** `observation-simulator`: runs the simulator until SIGINT/SIGTERM and prints how to reach it. */
import { CliError, parseCliArgs, USAGE } from './cli-args.js';
import { type Simulator, startSimulator } from './simulator.js';

function describe(sim: Simulator, json: boolean): string {
  const realtime =
    sim.form === 'basic'
      ? `${sim.wsUrl}/events/realtime/<task_id>?token=<token>`
      : `${sim.wsUrl}/events/realtime/${sim.serviceId}/0?token=<token>`;
  if (json) {
    return JSON.stringify({
      siteUrl: sim.siteUrl,
      apiUrl: sim.apiUrl,
      wsUrl: sim.wsUrl,
      form: sim.form,
      serviceId: sim.serviceId,
      token: sim.token,
      email: sim.credentials.email,
      password: sim.credentials.password,
      controlUrl: `${sim.siteUrl}/__control`,
    });
  }
  return [
    `Observation Service simulator (form ${sim.form})`,
    `  site:        ${sim.siteUrl}`,
    `  API:         ${sim.apiUrl}`,
    `  WebSocket:   ${sim.wsUrl}`,
    `  realtime:    ${realtime}`,
    `  service id:  ${sim.serviceId}`,
    `  token:       ${sim.token}`,
    `  login:       ${sim.credentials.email} / ${sim.credentials.password}  (POST ${sim.apiUrl}/users/token)`,
    `  control:     POST ${sim.siteUrl}/__control/<action>`,
    'Press Ctrl-C to stop.',
  ].join('\n');
}

async function main(): Promise<void> {
  let args: ReturnType<typeof parseCliArgs>;
  try {
    args = parseCliArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`observation-simulator: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return;
  }
  let sim: Simulator;
  try {
    sim = await startSimulator(args.options);
  } catch (error) {
    process.stderr.write(
      `observation-simulator: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`${describe(sim, args.json)}\n`);
  const shutdown = (signal: string) => {
    if (!args.json) process.stdout.write(`\n${signal}: stopping the simulator\n`);
    sim.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

await main();
