/**
 * A bare NestJS-on-Fastify app with one route and nothing else (no logging, no metrics, no database): what an MCP
 * server's route costs before any authorization or platform, the floor of the resource-server benchmark.
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';

const ANSWER = { notes: [{ id: 'n1', title: 'a note', body: 'the same answer on both routes' }] };

@Controller('bench')
class BareController {
  @Get('open')
  open() {
    return ANSWER;
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

const app = await NestFactory.create<NestFastifyApplication>(BareModule, new FastifyAdapter(), {
  logger: false,
});
await app.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
process.stdout.write(`bare-nest listening on ${await app.getUrl()}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
