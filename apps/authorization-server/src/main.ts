import 'reflect-metadata';
import { runMain } from '@portcullis/platform';
import { AppModule } from './app.module.js';

await runMain({ name: 'authorization-server', module: AppModule, env: process.env });
