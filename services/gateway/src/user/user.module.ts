import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccessGuard } from '../auth/access.guard';
import { AccountChanges } from '../auth/account-changes';
import { SessionRefresher } from '../auth/session-refresher';
import { TokenVerifier } from '../auth/token-verifier';
import { AccountController } from './account.controller';
import { AuthController } from './auth.controller';
import { CloseAccountHandler } from './close-account.command';
import { DevLoginController } from './dev-login.controller';
import { GetProfileHandler } from './get-profile.query';
import { RegisterUserHandler } from './register-user.command';

@Module({})
export class UserModule {
  static register(options: { devLogin: boolean }): DynamicModule {
    return {
      module: UserModule,
      controllers: options.devLogin
        ? [AuthController, AccountController, DevLoginController]
        : [AuthController, AccountController],
      providers: [
        TokenVerifier,
        SessionRefresher,
        AccountChanges,
        RegisterUserHandler,
        CloseAccountHandler,
        GetProfileHandler,
        { provide: APP_GUARD, useClass: AccessGuard },
      ],
      exports: [TokenVerifier],
    };
  }
}
