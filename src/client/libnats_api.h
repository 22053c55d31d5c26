/* libnats, the NATS C client, loaded when first needed (see util/dynlib.h): the functions
 * tally calls, once, and the table they are reached through. */
#ifndef TALLY_CLIENT_LIBNATS_API_H
#define TALLY_CLIENT_LIBNATS_API_H

#include <nats/nats.h>
#include <stddef.h>

#include "util/dynlib.h"

#define TALLY_LIBNATS_FUNCTIONS(X) \
    X(nats_GetLastError) \
    X(natsConnection_Close) \
    X(natsConnection_Connect) \
    X(natsConnection_Destroy) \
    X(natsConnection_FlushTimeout) \
    X(natsConnection_Publish) \
    X(natsConnection_PublishRequest) \
    X(natsConnection_Subscribe) \
    X(natsInbox_Create) \
    X(natsInbox_Destroy) \
    X(natsMsg_Destroy) \
    X(natsMsg_GetData) \
    X(natsMsg_GetDataLength) \
    X(natsMsg_GetReply) \
    X(natsMsg_GetSubject) \
    X(natsOptions_Create) \
    X(natsOptions_Destroy) \
    X(natsOptions_SetAllowReconnect) \
    X(natsOptions_SetClosedCB) \
    X(natsOptions_SetCustomInboxPrefix) \
    X(natsOptions_SetDisconnectedCB) \
    X(natsOptions_SetErrorHandler) \
    X(natsOptions_SetMaxPendingMsgs) \
    X(natsOptions_SetMaxReconnect) \
    X(natsOptions_SetName) \
    X(natsOptions_SetNoRandomize) \
    X(natsOptions_SetReconnectBufSize) \
    X(natsOptions_SetReconnectWait) \
    X(natsOptions_SetReconnectedCB) \
    X(natsOptions_SetRetryOnFailedConnect) \
    X(natsOptions_SetSendAsap) \
    X(natsOptions_SetTimeout) \
    X(natsOptions_SetURL) \
    X(natsOptions_SetUserCredentialsFromFiles) \
    X(natsOptions_SetUserInfo) \
    X(natsStatus_GetText) \
    X(natsSubscription_Destroy) \
    X(natsSubscription_SetOnCompleteCB) \
    X(natsSubscription_SetPendingLimits) \
    X(natsSubscription_Unsubscribe)

struct libnats_api {
    TALLY_LIBNATS_FUNCTIONS(DYNLIB_POINTER)
};

/* Loads the library (once per process); NULL with the reason in why. */
const struct libnats_api *libnats_api_load(char *why, size_t why_size);

/* The table, once libnats_api_load has succeeded. */
const struct libnats_api *libnats_api(void);
#define NATS(f) (libnats_api()->f)

#endif
