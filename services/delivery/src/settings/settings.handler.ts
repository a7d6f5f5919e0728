import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DeliverySubjects, type RpcRequest } from '@invest/contracts';
import { requireUser } from '@invest/platform';
import type { SettingsService } from './settings.service.js';

/** `delivery.settings.*`: the signed-in user's notification settings. */
export function createSettingsHandler(settings: SettingsService) {
  @Controller()
  class SettingsHandler {
    @MessagePattern(DeliverySubjects.settingsGet)
    get(@Payload() req: RpcRequest<unknown>) {
      return settings.get(requireUser(req.meta));
    }

    @MessagePattern(DeliverySubjects.settingsPut)
    put(@Payload() req: RpcRequest<unknown>) {
      return settings.put(requireUser(req.meta), req.data);
    }
  }
  return SettingsHandler;
}
