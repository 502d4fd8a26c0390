import { Injectable } from '@nestjs/common';
import OAuth2Server, { InvalidGrantError } from '@node-oauth/oauth2-server';
import { agentScopes, type AgentScope } from '@shop/contracts';
import { Aggregates, asActingAgent } from '@shop/commands';
import { DomainError } from '@shop/domain';
import { currentCorrelationId } from '@shop/logging';
import {
  AgentPrincipal,
  credentialHash,
  grantOfRefreshToken,
  randomSecret,
  refreshTokenFor,
} from './agent-credentials';
import {
  accessTokenLifetimeSeconds,
  AgentTokenStore,
  authorizationCodeLifetimeSeconds,
} from './agent-token-store';

/** What the library carries from a code or refresh token to the tokens it issues. */
interface GrantHolder {
  userId: string;
  grantId: string;
  clientName: string;
  resource: string;
  /** Set on a refresh: the hash of the refresh token presented, which the grant spends. */
  presentedHash?: string;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const grants = ['authorization_code', 'refresh_token'];

export const isAgentScope = (scope: string): scope is AgentScope =>
  (agentScopes as readonly string[]).includes(scope);

/**
 * The storage @node-oauth/oauth2-server asks of us, on the stream and Redis: clients are the
 * agent-client aggregate, a token exchange appends to the agent-grant aggregate (the first one
 * records the shopper's approval, each refresh spends the refresh token it got), and the short
 * lived codes and access tokens live in Redis by hash (see AgentTokenStore). The library checks
 * the protocol: client and redirect URI, code expiry and single use, the PKCE verifier.
 */
@Injectable()
export class AgentOAuthModel implements OAuth2Server.AuthorizationCodeModel, OAuth2Server.RefreshTokenModel {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly tokens: AgentTokenStore,
  ) {}

  async getClient(clientId: string): Promise<OAuth2Server.Client | null> {
    if (!uuid.test(clientId)) return null;
    const { state } = await this.aggregates.agentClient.state(clientId);
    if (!state.exists) return null;
    return { id: clientId, redirectUris: state.redirectUris, grants, clientName: state.clientName };
  }

  async validateScope(
    _user: OAuth2Server.User,
    _client: OAuth2Server.Client,
    scope?: string[],
  ): Promise<string[] | false> {
    if (!scope || scope.length === 0 || !scope.every(isAgentScope)) return false;
    return [...new Set(scope)];
  }

  async generateAccessToken(): Promise<string> {
    return randomSecret();
  }

  async generateRefreshToken(_client: OAuth2Server.Client, user: OAuth2Server.User): Promise<string> {
    return refreshTokenFor((user as GrantHolder).grantId);
  }

  async saveAuthorizationCode(
    code: Pick<
      OAuth2Server.AuthorizationCode,
      'authorizationCode' | 'expiresAt' | 'redirectUri' | 'scope' | 'codeChallenge' | 'codeChallengeMethod'
    >,
    client: OAuth2Server.Client,
    user: OAuth2Server.User,
  ): Promise<OAuth2Server.AuthorizationCode> {
    await this.tokens.saveCode(code.authorizationCode, {
      expiresAt: code.expiresAt.toISOString(),
      redirectUri: code.redirectUri,
      scope: code.scope ?? [],
      clientId: client.id,
      codeChallenge: code.codeChallenge!,
      codeChallengeMethod: code.codeChallengeMethod!,
      user: user as GrantHolder,
    });
    return { ...code, client, user };
  }

  async getAuthorizationCode(authorizationCode: string): Promise<OAuth2Server.AuthorizationCode | null> {
    const stored = await this.tokens.readCode(authorizationCode);
    const client = stored && (await this.getClient(stored.clientId));
    if (!stored || !client) return null;
    return {
      authorizationCode,
      expiresAt: new Date(stored.expiresAt),
      redirectUri: stored.redirectUri,
      scope: stored.scope,
      client,
      user: stored.user,
      codeChallenge: stored.codeChallenge,
      codeChallengeMethod: stored.codeChallengeMethod,
    };
  }

  revokeAuthorizationCode(code: OAuth2Server.AuthorizationCode): Promise<boolean> {
    return this.tokens.spendCode(code.authorizationCode);
  }

  async getRefreshToken(refreshToken: string): Promise<OAuth2Server.RefreshToken | null> {
    const grantId = grantOfRefreshToken(refreshToken);
    if (!grantId) return null;
    const { state } = await this.aggregates.agentGrant.state(grantId);
    if (!state.exists || state.revoked) return null;
    // A closed account's agents get no new tokens (its grants' rows went with it).
    const { state: user } = await this.aggregates.user.state(state.userId!);
    if (user.closed) return null;
    const holder: GrantHolder = {
      userId: state.userId!,
      grantId,
      clientName: state.clientName!,
      resource: state.resource!,
      presentedHash: credentialHash(refreshToken),
    };
    return {
      refreshToken,
      scope: state.scopes,
      client: { id: state.clientId!, grants },
      user: holder,
    };
  }

  /** The grant spends the presented refresh token when it records the new one (saveToken). */
  async revokeToken(): Promise<boolean> {
    return true;
  }

  async saveToken(
    token: OAuth2Server.Token,
    client: OAuth2Server.Client,
    user: OAuth2Server.User,
  ): Promise<OAuth2Server.Token> {
    const holder = user as GrantHolder;
    const scopes = (token.scope ?? []).filter(isAgentScope);
    const refreshTokenHash = credentialHash(token.refreshToken!);
    const options = {
      actor: { kind: 'user' as const, id: holder.userId },
      correlationId: currentCorrelationId(),
    };
    await asActingAgent(client.id, async () => {
      try {
        if (holder.presentedHash === undefined) {
          await this.aggregates.agentGrant.execute(
            holder.grantId,
            {
              type: 'ApproveAgentGrant',
              userId: holder.userId,
              clientId: client.id,
              clientName: holder.clientName,
              scopes,
              resource: holder.resource,
              refreshTokenHash,
            },
            options,
          );
          return;
        }
        const outcome = await this.aggregates.agentGrant.execute(
          holder.grantId,
          {
            type: 'RefreshAgentGrant',
            clientId: client.id,
            presentedHash: holder.presentedHash,
            refreshTokenHash,
          },
          options,
        );
        if (outcome.events.some((event) => event.type === 'AgentGrantRevoked'))
          throw new InvalidGrantError(
            'Invalid grant: the refresh token was already used; the grant is revoked',
          );
      } catch (error) {
        if (error instanceof DomainError) throw new InvalidGrantError(`Invalid grant: ${error.message}`);
        throw error;
      }
    });
    const principal: AgentPrincipal = {
      grantId: holder.grantId,
      userId: holder.userId,
      clientId: client.id,
      scopes,
      resource: holder.resource,
    };
    await this.tokens.saveAccessToken(token.accessToken, principal);
    const { presentedHash: _spent, ...kept } = holder;
    return { ...token, client, user: kept };
  }

  async getAccessToken(accessToken: string): Promise<OAuth2Server.Token | null> {
    const principal = await this.tokens.readAccessToken(accessToken);
    if (!principal) return null;
    return {
      accessToken,
      scope: principal.scopes,
      client: { id: principal.clientId, grants },
      user: principal,
    };
  }
}

/** The library's server over our model: public clients (PKCE, no secret), S256 only, rotation on refresh. */
export const agentOAuthServer = (model: AgentOAuthModel): OAuth2Server =>
  new OAuth2Server({
    model,
    accessTokenLifetime: accessTokenLifetimeSeconds,
    authorizationCodeLifetime: authorizationCodeLifetimeSeconds,
    allowEmptyState: true,
    requireClientAuthentication: { authorization_code: false, refresh_token: false },
    alwaysIssueNewRefreshToken: true,
  });
