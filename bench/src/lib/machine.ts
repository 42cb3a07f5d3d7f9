import { cpus, loadavg, totalmem } from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  date: string;
  loadAverageAtStart: number[];
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
    loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}
