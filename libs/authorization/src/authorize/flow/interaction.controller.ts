import { Controller, Get, HttpCode, Post, Req, Res, type Type } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CookieExchange } from '../../http/cookies.js';
import { rawBody } from '../../http/raw-body.js';
import { RequestParameters } from '../../http/request-parameters.js';
import { RateLimit } from '../../http/route-prologue.js';
import { errorPage } from '../pages/error.page.js';
import { answer } from './answer.js';
import type { InteractionStepType } from './interaction-step.js';
import { InteractionService } from './interaction.service.js';

/**
 * The one controller of the interaction's pages: GET shows a step's page, POST answers its form, each through
 * {@link InteractionService}, and the decision becomes HTTP in {@link answer}. Routes are the steps' paths
 * (`/login`, `/consent`, `/continue`, and any an app adds), so this class is built per module. A parameter with a
 * control character is refused with a page before anything reads it.
 */
export function interactionController(steps: readonly InteractionStepType[]): Type<unknown> {
  @Controller()
  class InteractionController {
    readonly #base: string;

    constructor(private readonly interactions: InteractionService) {
      this.#base = interactions.path('');
    }

    async show(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
      const query = RequestParameters.fromUrl(request.url);
      if (refusedUnsafe(reply, query)) return;
      const cookies = new CookieExchange(request.headers.cookie);
      answer(reply, await this.interactions.show(this.#stepPath(request), query, cookies), cookies);
    }

    async submit(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
      const form = RequestParameters.fromForm(rawBody(request));
      if (refusedUnsafe(reply, form)) return;
      const cookies = new CookieExchange(request.headers.cookie);
      answer(reply, await this.interactions.submit(this.#stepPath(request), form, cookies), cookies);
    }

    async submitRateLimited(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
      return this.submit(request, reply);
    }

    #stepPath(request: FastifyRequest): string {
      const path = new URL(request.url, 'http://localhost').pathname;
      return path.startsWith(this.#base) ? path.slice(this.#base.length) : path;
    }
  }

  const paths = steps.flatMap((step) => (step.path ? [step.path] : []));
  const limited = steps.flatMap((step) => (step.path && step.rateLimited ? [step.path] : []));
  const unlimited = paths.filter((path) => !limited.includes(path));
  if (paths.length > 0) route(InteractionController, 'show', Get(paths));
  if (unlimited.length > 0) route(InteractionController, 'submit', Post(unlimited), HttpCode(303));
  if (limited.length > 0) {
    route(InteractionController, 'submitRateLimited', Post(limited), HttpCode(303), RateLimit('login'));
  }
  return InteractionController;
}

/** Applies method decorators to `key` of `target`, as `@Decorator()` above the method would. */
function route(target: Type<unknown>, key: string, ...decorators: MethodDecorator[]): void {
  const descriptor = Object.getOwnPropertyDescriptor(target.prototype, key);
  if (!descriptor) throw new Error(`no method ${key}`);
  for (const decorator of [...decorators].reverse()) decorator(target.prototype as object, key, descriptor);
}

/** A front-channel parameter with a control character or a lone surrogate: the error page (400). */
function refusedUnsafe(reply: FastifyReply, params: RequestParameters): boolean {
  if (params.unsafe === undefined) return false;
  answer(reply, {
    kind: 'page',
    status: 400,
    html: errorPage('invalid_request', `${params.unsafe} contains a control character`),
  });
  return true;
}
