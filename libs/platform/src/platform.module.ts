import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { DatabaseModule, type DatabaseTarget } from '@portcullis/persistence';
import { HealthController } from './health.controller.js';
import { loggerParams, type LoggingOptions } from './logging.js';

export interface PlatformModuleOptions {
  logging: LoggingOptions;
  database: DatabaseTarget;
}

/** Logging, the database and the health probes: what every Portcullis app imports first. */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        LoggerModule.forRoot(loggerParams(options.logging)),
        DatabaseModule.forRoot({ target: options.database }),
      ],
      controllers: [HealthController],
      exports: [DatabaseModule],
    };
  }
}
